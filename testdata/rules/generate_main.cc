// Writes the case-study traces as Kineto JSON: testdata/rules/<name>.json.
//   gen_rule_testdata <output dir> [--example <dir>]
// With --example it also writes the README's bundled example run: the
// DataLoader case study as a tensorboard_trace_handler directory.
#include <fstream>
#include <iostream>

#include "testdata/rules/case_studies.h"

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--example")) {
    std::cerr << "usage: gen_rule_testdata <output dir> [--example <dir>]\n";
    return 2;
  }
  for (const tracelint::case_studies::CaseStudy& c :
       tracelint::case_studies::AllCaseStudies()) {
    absl::StatusOr<std::string> json = c.scenario.ToKinetoJson();
    if (!json.ok()) {
      std::cerr << c.name << ": " << json.status() << "\n";
      return 1;
    }
    std::string path = std::string(argv[1]) + "/" + c.name + ".json";
    if (argc == 4 && c.name == "dataloader_starvation") {
      // tensorboard_trace_handler's naming: <worker>.<stamp ms>.pt.trace.json
      std::string example = std::string(argv[3]) + "/worker0.1732240000000.pt.trace.json";
      std::ofstream ex(example, std::ios::binary | std::ios::trunc);
      ex << *json;
      if (!ex) {
        std::cerr << "cannot write " << example << "\n";
        return 1;
      }
      std::cout << example << "\n";
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << *json;
    if (!out) {
      std::cerr << "cannot write " << path << "\n";
      return 1;
    }
    std::cout << path << "\n";
  }
  return 0;
}
