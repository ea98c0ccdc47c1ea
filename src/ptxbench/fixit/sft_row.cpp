#include "ptxbench/fixit/sft_row.hpp"

namespace ptxbench::fixit {

nlohmann::json to_json(const SftRow& row) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : row.messages)
    messages.push_back(
        {{"role", message.role}, {"content", message.content}, {"loss", message.loss}});
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

}  // namespace ptxbench::fixit
