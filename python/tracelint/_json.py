"""Attribute access over the JSON the binary writes.

Objects wrap dicts generically, so a field the report gains (an additive
schema change) is reachable with no change to this package:
`report.findings[0].location.top_items[0].name`."""

from __future__ import annotations

from typing import Any, Iterator


def wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return Node(value)
    if isinstance(value, list):
        return NodeList(value)
    return value


class Node:
    """A JSON object: fields as attributes (and `node["field"]`)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        try:
            return wrap(self._data[name])
        except KeyError:
            raise AttributeError(
                f"no field '{name}'; the fields are: {', '.join(sorted(self._data))}") from None

    def __getitem__(self, name: str) -> Any:
        return wrap(self._data[name])

    def __contains__(self, name: str) -> bool:
        return name in self._data

    def get(self, name: str, default: Any = None) -> Any:
        return wrap(self._data.get(name, default))

    def keys(self):
        return self._data.keys()

    def to_dict(self) -> dict:
        """The JSON object as plain Python data."""
        return self._data

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("report objects are read-only")

    def __dir__(self):
        return sorted(set(self._data) | {"to_dict", "get", "keys"})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other._data == self._data

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={self._data[k]!r}" for k in list(self._data)[:4])
        more = ", ..." if len(self._data) > 4 else ""
        return f"<{fields}{more}>"


class NodeList:
    """A JSON array whose elements are wrapped on access."""

    __slots__ = ("_items",)

    def __init__(self, items: list):
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return NodeList(self._items[index])
        return wrap(self._items[index])

    def __iter__(self) -> Iterator[Any]:
        return (wrap(v) for v in self._items)

    def to_list(self) -> list:
        return self._items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeList) and other._items == self._items

    def __repr__(self) -> str:
        return f"[{len(self._items)} items]"
