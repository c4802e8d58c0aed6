// A private nginx in front of `diagd serve` instances, for the cluster
// tests: the load balancer of a real several-instance deployment, on
// 127.0.0.1 and a free port, with a throw-away prefix folder (its
// nginx.conf, pid file, logs and temp folders), started by this process and
// stopped (SIGTERM, nginx's fast shutdown, then SIGKILL) with its folder
// deleted at the end. Nothing depends on the nginx Debian's package may have
// started, nor on /etc/nginx.
//
// The proxy part of its configuration (`DiagdProxyConfig`: the upstream of
// the instances and the location with the streaming settings) is the one
// docs/deploy.md shows to users; a cluster test checks that the doc's block
// is this text, so what the tests prove is what the doc tells.
//
// nginx runs in the foreground (`daemon off`) with a master and one worker.
// When this process is root (CI is), the worker runs as nobody/nogroup
// (`user`). The master gets PR_SET_PDEATHSIG SIGTERM, so it stops its
// worker too when the thread that started it ends: start it from the
// test's own thread. Every instance stays in the upstream for the whole
// test: nginx finds one that is down by its refused connections and sends
// the request to the next (`proxy_next_upstream error timeout`).
//
// When /usr/sbin/nginx (or nginx on PATH) is missing, Start is
// FAILED_PRECONDITION saying so (tests skip on it), unless
// DIAGD_REQUIRE_NGINX=1 makes it a failure.
//
// Thread safety: one owner; the accessors are safe from any thread.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diagd::testing {

// The lines of nginx.conf, inside `http { }`, that put nginx in front of
// diagd: `upstream diagd` with one `server` per address in `instances`
// ("host:port"), and a `server` block listening on `listen` that proxies
// everything to it. docs/deploy.md explains each line.
std::string DiagdProxyConfig(std::string_view listen, const std::vector<std::string>& instances);

class NginxServer {
 public:
  // Starts nginx in front of 127.0.0.1:P for each P of `upstream_ports`
  // and waits (at most 30 s) until its port accepts connections.
  static Result<std::unique_ptr<NginxServer>> Start(const std::vector<int>& upstream_ports);
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // The whole generated nginx.conf.
  std::string Config() const;
  // Its error log (level notice) and access log (one line per request:
  // status, the upstream address or addresses tried, the request line).
  std::string ErrorLog() const;
  std::string AccessLog() const;

  // Fast shutdown (SIGTERM: open streams are cut), SIGKILL of the master
  // and its worker after 10 s; idempotent.
  void Stop();

 private:
  NginxServer() = default;
  Status Launch(const std::string& nginx, const std::vector<int>& upstream_ports);
  Status WaitUntilReady();

  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace diagd::testing
