#include "testing/nginx_server.h"

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "testing/child_process.h"
#include "testing/free_port.h"

namespace diagd::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyTimeout = 30s;
constexpr auto kStopTimeout = 10s;
constexpr int kLaunchAttempts = 3;  // a free port may be taken before nginx binds it

std::string FindNginx() {
  std::string path = getenv("PATH") != nullptr ? getenv("PATH") : "";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/nginx").c_str(), X_OK) == 0) return dir + "/nginx";
  }
  if (access("/usr/sbin/nginx", X_OK) == 0) return "/usr/sbin/nginx";
  return {};
}

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return connected;
}

// `user nobody nogroup;` when this process is root (the worker must not
// be), nothing otherwise (nginx ignores `user` then, with a warning).
std::string UserLine() {
  if (geteuid() != 0) return "";
  if (getgrnam("nogroup") != nullptr) return "user nobody nogroup;\n";
  return "user nobody;\n";
}

// The whole nginx.conf of a private nginx whose prefix is `dir`.
std::string MainConfig(const std::filesystem::path& dir, int port,
                       const std::vector<int>& upstream_ports) {
  std::vector<std::string> instances;
  for (int upstream : upstream_ports) instances.push_back("127.0.0.1:" + std::to_string(upstream));
  std::string proxy = DiagdProxyConfig("127.0.0.1:" + std::to_string(port), instances);
  std::string indented;
  std::istringstream lines(proxy);
  for (std::string line; std::getline(lines, line);) {
    indented += line.empty() ? "\n" : "    " + line + "\n";
  }
  const std::string d = dir.string();
  return "# A private nginx of the cluster tests (tests/testing/nginx_server.cc).\n"
         "daemon off;\n"
         "master_process on;\n"
         "worker_processes 1;\n" +
         UserLine() +
         "pid " + d + "/nginx.pid;\n"
         "lock_file " + d + "/nginx.lock;\n"
         "error_log " + d + "/error.log notice;\n"
         "\n"
         "events {\n"
         "    worker_connections 1024;\n"
         "}\n"
         "\n"
         "http {\n"
         "    log_format diagd '$status $upstream_addr \"$request\"';\n"
         "    access_log " + d + "/access.log diagd;\n"
         "    client_body_temp_path " + d + "/temp/body;\n"
         "    proxy_temp_path " + d + "/temp/proxy;\n"
         "    fastcgi_temp_path " + d + "/temp/fastcgi;\n"
         "    uwsgi_temp_path " + d + "/temp/uwsgi;\n"
         "    scgi_temp_path " + d + "/temp/scgi;\n"
         "\n" +
         indented + "}\n";
}

}  // namespace

std::string DiagdProxyConfig(std::string_view listen, const std::vector<std::string>& instances) {
  std::string servers;
  for (const std::string& instance : instances) {
    servers += "    server " + instance + " max_fails=0;\n";
  }
  return "upstream diagd {\n" + servers +
         "}\n"
         "\n"
         "server {\n"
         "    listen " + std::string(listen) + ";\n"
         "\n"
         "    location / {\n"
         "        proxy_pass http://diagd;\n"
         "        proxy_http_version 1.1;\n"
         "        proxy_next_upstream error timeout;\n"
         "        proxy_connect_timeout 5s;\n"
         "        proxy_read_timeout 3600s;\n"
         "        proxy_buffering off;\n"
         "        proxy_cache off;\n"
         "    }\n"
         "}\n";
}

Result<std::unique_ptr<NginxServer>> NginxServer::Start(const std::vector<int>& upstream_ports) {
  std::string nginx = FindNginx();
  if (nginx.empty()) {
    std::string message =
        "nginx was found neither on PATH nor as /usr/sbin/nginx: the cluster tests need a real "
        "one in front of the instances; run scripts/bootstrap (it installs nginx-light)";
    const char* required = std::getenv("DIAGD_REQUIRE_NGINX");
    if (required != nullptr && std::string(required) == "1") return Error::Unavailable(message);
    return Error::FailedPrecondition(message);
  }
  // As root, under /tmp itself and open to all: the worker (nobody) uses
  // the temp folders in it.
  std::filesystem::path temp =
      geteuid() == 0 ? std::filesystem::path("/tmp") : std::filesystem::temp_directory_path();
  std::string pattern = (temp / "diagd-nginx-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return Error::Internal("mkdtemp failed");
  std::unique_ptr<NginxServer> server(new NginxServer());
  server->dir_ = pattern;
  std::error_code ec;
  std::filesystem::create_directories(server->dir_ / "temp", ec);
  if (ec || chmod(pattern.c_str(), 0755) != 0 ||
      chmod((server->dir_ / "temp").c_str(), 0755) != 0) {
    return Error::Internal("cannot prepare nginx's folder " + pattern);
  }
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    if (ready = server->Launch(nginx, upstream_ports); ready) ready = server->WaitUntilReady();
  }
  if (!ready) return ready.error();
  return server;
}

Status NginxServer::Launch(const std::string& nginx, const std::vector<int>& upstream_ports) {
  port_ = FreeLoopbackPort();
  if (port_ == 0) return Error::Internal("no free port");
  std::filesystem::remove(dir_ / "error.log");
  {
    std::ofstream conf(dir_ / "nginx.conf", std::ios::trunc);
    conf << MainConfig(dir_, port_, upstream_ports);
    if (!conf) return Error::Internal("cannot write nginx.conf");
  }
  std::vector<std::string> args = {nginx,
                                   "-p",
                                   dir_.string() + "/",
                                   "-c",
                                   (dir_ / "nginx.conf").string(),
                                   "-e",
                                   (dir_ / "error.log").string()};
  // A process group of its own, so Stop ends the master and its worker
  // together; SIGTERM when this process dies, a fast shutdown that takes the
  // worker along.
  pid_ = SpawnChild(args, {.log = dir_ / "nginx.out", .death_signal = SIGTERM, .own_group = true});
  if (pid_ < 0) return Error::Internal("fork failed");
  return OkStatus();
}

Status NginxServer::WaitUntilReady() {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error::Unavailable("nginx exited during start-up:\n" +
                                FileTail(dir_ / "nginx.out", 2000) +
                                FileTail(dir_ / "error.log", 2000));
    }
    if (Accepts(port_)) return OkStatus();
    std::this_thread::sleep_for(20ms);
  }
  Stop();
  return Error::DeadlineExceeded("nginx did not accept connections within 30 s:\n" +
                                 FileTail(dir_ / "error.log", 2000));
}

void NginxServer::Stop() {
  if (pid_ <= 0) return;
  // fast shutdown: open streams are cut, as a crash would
  StopChild(pid_, SIGTERM, kStopTimeout, /*whole_group=*/true);
  pid_ = -1;
}

NginxServer::~NginxServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string NginxServer::Config() const { return ReadWholeFile(dir_ / "nginx.conf"); }
std::string NginxServer::ErrorLog() const { return ReadWholeFile(dir_ / "error.log"); }
std::string NginxServer::AccessLog() const { return ReadWholeFile(dir_ / "access.log"); }

}  // namespace diagd::testing
