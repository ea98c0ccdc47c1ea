#include "ptxbench/fixit/sft_row.hpp"

namespace ptxbench::fixit {

nlohmann::json to_json(const SftRow& row) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : row.messages)
    messages.push_back({{"role", message.role},
                        {"content", message.content},
                        {"loss", message.loss},
                        {"reasoning", message.reasoning}});
  const Provenance& p = row.provenance;
  return {{"id", row.id},
          {"kind", row.kind},
          {"split", row.split},
          {"verified", row.verified},
          {"messages", messages},
          {"provenance",
           {{"run", p.run},
            {"trajectory", p.trajectory},
            {"turn", p.turn},
            {"task", p.task},
            {"arch", p.arch},
            {"context", p.context},
            {"verdict", p.verdict},
            {"teacher", p.teacher},
            {"evaluation_source_hash", p.evaluation_source_hash},
            {"mined_id", p.mined_id},
            {"repair_trajectory", p.repair_trajectory},
            {"repair_turn", p.repair_turn},
            {"explainer", p.explainer},
            {"length_bin", p.length_bin},
            {"recipe", p.recipe},
            {"verification", p.verification},
            {"gpu", p.gpu}}}};
}

std::string dataset_features_yaml() {
  // The same keys, in the same order, as to_json above.
  return "  features:\n"
         "  - name: id\n    dtype: string\n"
         "  - name: kind\n    dtype: string\n"
         "  - name: split\n    dtype: string\n"
         "  - name: verified\n    dtype: bool\n"
         "  - name: messages\n    list:\n"
         "    - name: role\n      dtype: string\n"
         "    - name: content\n      dtype: string\n"
         "    - name: loss\n      dtype: bool\n"
         "    - name: reasoning\n      dtype: string\n"
         "  - name: provenance\n    struct:\n"
         "    - name: run\n      dtype: string\n"
         "    - name: trajectory\n      dtype: string\n"
         "    - name: turn\n      dtype: int64\n"
         "    - name: task\n      dtype: string\n"
         "    - name: arch\n      dtype: string\n"
         "    - name: context\n      dtype: string\n"
         "    - name: verdict\n      dtype: string\n"
         "    - name: teacher\n      dtype: string\n"
         "    - name: evaluation_source_hash\n      dtype: string\n"
         "    - name: mined_id\n      dtype: string\n"
         "    - name: repair_trajectory\n      dtype: string\n"
         "    - name: repair_turn\n      dtype: int64\n"
         "    - name: explainer\n      dtype: string\n"
         "    - name: length_bin\n      dtype: string\n"
         "    - name: recipe\n      dtype: string\n"
         "    - name: verification\n      dtype: string\n"
         "    - name: gpu\n      dtype: string\n";
}

}  // namespace ptxbench::fixit
