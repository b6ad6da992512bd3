#ifndef TRACELINT_ANALYZER_REPORT_JSON_WRITER_H_
#define TRACELINT_ANALYZER_REPORT_JSON_WRITER_H_

// The JSON writer moved to analyzer/base (the run summary's serialisation
// uses it below the reporters); this name stays for the reporters.
#include "analyzer/base/json_writer.h"

#endif  // TRACELINT_ANALYZER_REPORT_JSON_WRITER_H_
