"""The Python API on the installed wheel (tests/release/release_test.sh runs
this with the venv's Python): results, errors by exit code, keyword options
from the option table, pandas frames. Corpus traces are read from
../shared/corpus and skipped visibly when absent."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import tracelint
from tracelint._binary import binary_path

SOURCE = os.environ.get("TRACELINT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(SOURCE, "testdata", "example")
CORPUS = os.path.join(SOURCE, "..", "shared", "corpus")
KINETO = os.path.join(CORPUS, "pytorch__kineto", "tb_plugin", "samples")


def corpus(path):
    full = os.path.join(KINETO, path)
    if not os.path.exists(full):  # like every corpus test: a visible skip
        raise unittest.SkipTest(f"corpus trace {full} absent")
    return full


class AnalyzeTest(unittest.TestCase):
    def test_report_fields_by_attribute(self):
        r = tracelint.analyze(EXAMPLE)
        self.assertEqual(r.exit_code, 0)
        self.assertEqual(r.schema_version, 1)
        self.assertIn(r.verdict, ("input", "host", "communication", "copies", "gpu compute",
                                  "not judgeable"))
        self.assertTrue(r.verdict_text)
        self.assertGreater(len(r.findings), 0)
        f = r.findings[0]
        for field in ("rule_id", "cause", "severity", "recoverable_ns_per_step",
                      "recoverable_share", "fix", "fingerprint"):
            self.assertIn(field, f)
        self.assertEqual(f.location.rank, f.to_dict()["location"]["rank"])
        self.assertEqual(r.to_dict()["findings"][0]["rule_id"], f.rule_id)
        with self.assertRaises(AttributeError):
            r.no_such_field

    def test_corpus_trace_and_options(self):
        path = corpus("resnet50_num_workers_0/worker0.pt.trace.json.gz")
        r = tracelint.analyze(path, batch_size=32, top=3)
        self.assertEqual(r.exit_code, 0)
        # The API is thin over the binary: the same report as the CLI's JSON.
        cli = subprocess.run([binary_path(), "analyze", path, "--batch-size", "32",
                              "--top", "3", "--format", "json"], capture_output=True)
        self.assertEqual(cli.returncode, 0)
        self.assertEqual(r.to_dict()["findings"], json.loads(cli.stdout)["findings"])
        self.assertEqual(r.verdict, json.loads(cli.stdout)["verdict"])
        self.assertGreater(len(r.findings), 0)
        only = tracelint.analyze(path, rules="-*,gpu-*")
        self.assertTrue(all(f.rule_id.startswith("gpu-") for f in only.findings))
        self.assertEqual(r.ranks[0].rank, 0)

    def test_gate_is_a_result(self):
        r = tracelint.analyze(EXAMPLE, fail_on="low")
        self.assertEqual(r.exit_code, 1)
        self.assertGreater(len(r.findings), 0)

    def test_errors_raise_with_the_exit_code(self):
        with self.assertRaises(tracelint.TracelintError) as e:
            tracelint.analyze("/no/such/trace.json")
        self.assertEqual(e.exception.exit_code, 3)
        self.assertIn("no/such/trace.json", e.exception.message)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "notes.txt")
            with open(bad, "w") as f:
                f.write("hello")
            with self.assertRaises(tracelint.TracelintError) as e:
                tracelint.analyze(bad)
            self.assertEqual(e.exception.exit_code, 3)

    def test_rule_options_and_selection(self):
        low = tracelint.analyze(EXAMPLE, set={"gpu-idle-gaps.MinIdleShare": 0.05})
        high = tracelint.analyze(EXAMPLE, set={"gpu-idle-gaps.MinIdleShare": 0.9})
        self.assertIn("gpu-idle-gaps", [f.rule_id for f in low.findings])
        self.assertNotIn("gpu-idle-gaps", [f.rule_id for f in high.findings])
        only = tracelint.analyze(EXAMPLE, rules="-*,host-side-ops")
        self.assertEqual({f.rule_id for f in only.findings}, {"host-side-ops"})

    def test_keywords_come_from_the_option_table(self):
        with self.assertRaises(tracelint.TracelintError) as e:
            tracelint.analyze(EXAMPLE, no_such_option=1)
        self.assertEqual(e.exception.exit_code, 2)
        self.assertIn("batch_size", e.exception.message)  # the options are listed
        for output_only in ("output", "format", "annotate", "color", "width"):
            with self.assertRaises(tracelint.TracelintError):
                tracelint.analyze(EXAMPLE, **{output_only: "x"})
        with self.assertRaises(tracelint.TracelintError) as e:
            tracelint.analyze(EXAMPLE, fail_on="urgent")
        self.assertEqual(e.exception.exit_code, 2)

    def test_html(self):
        r = tracelint.analyze(EXAMPLE)
        html = r._repr_html_()
        self.assertTrue(html.startswith("<iframe"))
        self.assertIn("srcdoc=", html)
        self.assertIn("&lt;html", html)


class DiffBatchTest(unittest.TestCase):
    def test_diff(self):
        d = tracelint.diff(EXAMPLE, EXAMPLE)
        self.assertEqual(d.exit_code, 0)
        self.assertEqual(d.tool, "tracelint diff")
        self.assertTrue(d.metrics)

    def test_batch_raises_only_when_nothing_was_read(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(tracelint.TracelintError):
                tracelint.batch(d)
        b = tracelint.batch(os.path.join(SOURCE, "testdata", "example"))
        self.assertGreaterEqual(len(b.runs), 1)

    def test_batch_of_corpus_runs(self):
        base = corpus("")
        b = tracelint.batch([os.path.join(base, "resnet50_num_workers_0"),
                             os.path.join(base, "resnet50_num_workers_4")])
        self.assertEqual(len(b.runs), 2)


class FramesTest(unittest.TestCase):
    def setUp(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            if os.environ.get("CI") == "true":
                raise
            self.skipTest("pandas missing (Debian's python3-pandas)")

    def test_frames(self):
        r = tracelint.analyze(EXAMPLE)
        findings = r.findings_frame()
        self.assertEqual(len(findings), len(r.findings))
        self.assertIn("rule_id", findings.columns)
        self.assertIn("recoverable_share", findings.columns)
        steps = r.steps_frame()
        self.assertGreater(len(steps), 0)
        self.assertIn("gpu_utilization", steps.columns)
        kernels = r.kernels_frame()
        self.assertEqual(set(kernels["rank"]), {0})
        self.assertIn("total_ns", kernels.columns)
        self.assertIn("device_ns", r.ops_frame().columns)
        runs = tracelint.batch(EXAMPLE).runs_frame()
        self.assertEqual(len(runs), 1)


class CommandLineTest(unittest.TestCase):
    def test_python_m_tracelint_is_the_cli(self):
        out = subprocess.run([sys.executable, "-m", "tracelint", "version"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertEqual(out.stdout.strip(), tracelint.version())
        bad = subprocess.run([sys.executable, "-m", "tracelint", "analyze", "--no-such-flag"],
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertNotIn("Traceback", bad.stderr)


if __name__ == "__main__":
    unittest.main()
