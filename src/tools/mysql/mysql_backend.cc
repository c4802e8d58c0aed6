// Opening query_mysql's backend from [tools.mysql] (the face's OpenBackend).
#include "config/config.h"
#include "tools/mysql/mysql_adapter.h"
#include "tools/mysql/mysql_tool.h"

namespace diagd::tools::mysql {

Result<OpenedBackend> QueryMysql::OpenBackend(const BackendContext& context) {
  auto adapter = MysqlAdapter::Open(context.config.tools.datasources);
  if (!adapter) {
    return Error::InvalidArgument("tools.mysql.datasources: " + adapter.error().message);
  }
  return OpenedBackend{std::move(*adapter), {}};
}

}  // namespace diagd::tools::mysql
