#include "analyzer/base/escape.h"

#include <string>

#include "analyzer/base/json_escape.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

const std::string kHostile = "k\x1b[2J\x07\rFAKE\nline|<script>alert(1)</script>\xff\xc3";

TEST(SanitizeUtf8, ReplacesInvalidBytesAndKeepsValidOnes) {
  EXPECT_EQ(SanitizeUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(SanitizeUtf8("a\xff" "b"), "a\xef\xbf\xbd" "b");
  EXPECT_EQ(SanitizeUtf8("cut \xe2\x82"), "cut \xef\xbf\xbd");      // one per subpart
  EXPECT_EQ(SanitizeUtf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
  EXPECT_EQ(SanitizeUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  EXPECT_EQ(SanitizeUtf8("\xf4\x90\x80\x80").size(), 12u);                         // > U+10FFFF
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8(kHostile)));
  EXPECT_FALSE(IsValidUtf8(kHostile));
}

TEST(EscapeTerminal, NoControlByteSurvives) {
  std::string out = EscapeTerminal(kHostile);
  for (char c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    EXPECT_FALSE(u < 0x20 || u == 0x7f) << "control byte " << int(u) << " in " << out;
  }
  EXPECT_EQ(EscapeTerminal("a\x1b[31mb\x07\r\n\t"), "a\\e[31mb\\x07\\r\\n\\t");
  EXPECT_EQ(EscapeTerminal("\xc2\x9b" "c1"), "\\u{9b}c1");  // C1 CSI
  EXPECT_TRUE(IsValidUtf8(out));
  EXPECT_EQ(EscapeTerminal("ümlaut ok"), "ümlaut ok");
}

TEST(EscapeMarkdownCell, KeepsTheTableAndInertHtml) {
  std::string out = EscapeMarkdownCell(kHostile);
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  // Every pipe is escaped, so the cell cannot be split.
  for (size_t i = out.find('|'); i != std::string::npos; i = out.find('|', i + 1)) {
    ASSERT_GT(i, 0u);
    EXPECT_EQ(out[i - 1], '\\');
  }
  EXPECT_EQ(EscapeMarkdownCell("a|b"), "a\\|b");
  EXPECT_EQ(EscapeMarkdownCell("x<y"), "x&lt;y");
}

TEST(EscapeHtml, NoMarkupAndValidUtf8) {
  std::string out = EscapeHtml(kHostile);
  EXPECT_EQ(out.find('<'), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(out));
  EXPECT_EQ(EscapeHtml("\"a\" & 'b'"), "&quot;a&quot; &amp; &#39;b&#39;");
}

TEST(JsonEscape, InvalidUtf8IsReplacedSoTheDocumentStaysValid) {
  EXPECT_EQ(JsonEscape("a\xff"), "a\xef\xbf\xbd");
  EXPECT_EQ(JsonEscape("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(JsonEscape("\x1b\x7f"), "\\u001b\\u007f");
}

TEST(TruncateUtf8, NeverCutsACharacter) {
  std::string s = "ab\xe2\x82\xac";  // "ab€"
  EXPECT_EQ(TruncateUtf8(s, 2), "ab");
  EXPECT_EQ(TruncateUtf8(s, 3), "ab");
  EXPECT_EQ(TruncateUtf8(s, 4), "ab");
  EXPECT_EQ(TruncateUtf8(s, 5), s);
  EXPECT_EQ(TruncateUtf8(s, 99), s);
  for (size_t n = 0; n <= s.size(); ++n) EXPECT_TRUE(IsValidUtf8(TruncateUtf8(s, n)));
}

}  // namespace
}  // namespace tracelint
