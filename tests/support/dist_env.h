// The environment of one rank of a world-size job on this machine, as torchrun sets it (RANK, LOCAL_RANK,
// WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT), on top of this process's own.
#pragma once
#include <QProcessEnvironment>
#include <QString>

namespace ywb::test {

inline QProcessEnvironment rankEnv(int rank, int world, int port) {
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  e.insert("RANK", QString::number(rank));
  e.insert("LOCAL_RANK", QString::number(rank));
  e.insert("WORLD_SIZE", QString::number(world));
  e.insert("MASTER_ADDR", "127.0.0.1");
  e.insert("MASTER_PORT", QString::number(port));
  return e;
}

}  // namespace ywb::test
