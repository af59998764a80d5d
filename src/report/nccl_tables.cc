#include "report/nccl_tables.h"

namespace commdx::report {

void AddNcclTables(const NcclSetup& nccl, Report& report) {
  Table comms{"communicators", "Communicators", {"commId", "nranks", "nNodes", "channels"},
              {"comm_id", "nranks", "nnodes", "channels"}, {}, ""};
  for (const auto& c : nccl.communicators)
    comms.AddRow({c.comm_id, Cell::Int(c.nranks), Cell::Int(c.nnodes), Cell::Int(c.channels)});
  report.tables.push_back(std::move(comms));
}

}  // namespace commdx::report
