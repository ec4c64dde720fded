// Traversal index checkpoints: the file format round-trips, damage is
// detected, and the background checkpointer writes a loadable file.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "check.h"
#include "index/index_persistence.h"
#include "index/traversal_index.h"

using namespace eventstore;

namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("EVENTSTORE_DATA_DIR");  // test_main's own directory
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/eventstore-test-" +
         std::to_string(getpid()) + "-" + name;
}

bool SameIndex(const TraversalIndex& a, const TraversalIndex& b) {
  return a.offsets() == b.offsets() && a.targets() == b.targets() &&
         a.edge_times() == b.edge_times() && a.edge_events() == b.edge_events();
}

}  // namespace

TEST(CheckpointFileRoundTripsAndDetectsDamage) {
  const EventColumns columns = GenerateEvents(StoreOptions{5, 4000, 200});
  const std::unique_ptr<TraversalIndex> index = TraversalIndex::Build(columns);
  std::vector<uint8_t> bytes;
  SerializeTraversalIndex(*index, &bytes);
  CHECK_EQ(bytes.size(), index->Bytes() + 3 * sizeof(uint64_t));
  const std::string path = TempPath("roundtrip.idx");
  std::string error;
  CHECK(WriteCheckpointFile(path, bytes, Checksum64(bytes.data(), bytes.size()), &error));
  std::unique_ptr<TraversalIndex> loaded = LoadTraversalIndex(path, &error);
  CHECK(loaded != nullptr);
  if (loaded != nullptr) CHECK(SameIndex(*index, *loaded));

  // Flip one byte in the middle: the checksum must notice.
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(bytes.size() / 2));
    file.put(static_cast<char>(bytes[bytes.size() / 2] ^ 0x40));
  }
  CHECK(LoadTraversalIndex(path, &error) == nullptr);
  CHECK(error.find("checksum") != std::string::npos);
  std::remove(path.c_str());
  CHECK(LoadTraversalIndex(path, &error) == nullptr);
  CHECK(error.find("cannot open") != std::string::npos);
}

TEST(ParallelCheckpointMatchesTheSerialOne) {
  // About 3 MB: several blocks, so threads really share the copy and the checksum.
  const EventColumns columns = GenerateEvents(StoreOptions{4, 200000, 5000});
  const std::unique_ptr<TraversalIndex> index = TraversalIndex::Build(columns);
  std::vector<uint8_t> serial;
  SerializeTraversalIndex(*index, &serial);
  CHECK(serial.size() > 2 * kCheckpointBlockBytes);
  const uint64_t expected = Checksum64(serial.data(), serial.size());
  for (unsigned threads : {1u, 2u, 5u}) {
    std::vector<uint8_t> parallel;
    CHECK_EQ(SerializeAndChecksum(*index, threads, &parallel), expected);
    CHECK(parallel == serial);
  }
  // The checksum covers every block: one byte in the last block changes it.
  serial.back() ^= 1;
  CHECK(Checksum64(serial.data(), serial.size()) != expected);
}

TEST(CheckpointerWritesOnceAndKeepsChecking) {
  const EventColumns columns = GenerateEvents(StoreOptions{6, 3000, 150});
  const std::unique_ptr<TraversalIndex> index = TraversalIndex::Build(columns);
  const std::string path = TempPath("checkpointer.idx");
  {
    IndexCheckpointer checkpointer(*index, path, std::chrono::milliseconds(1));
    // Wait (without a deadline on speed) until it has checked several times.
    for (int i = 0; i < 20000 && checkpointer.checkpoints() < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(checkpointer.checkpoints() >= 3);
    // An unchanged index is written once, however often it is checked.
    CHECK_EQ(checkpointer.writes(), 1u);
  }
  std::string error;
  std::unique_ptr<TraversalIndex> loaded = LoadTraversalIndex(path, &error);
  CHECK(loaded != nullptr);
  if (loaded != nullptr) CHECK(SameIndex(*index, *loaded));
  {
    // The same index built again finds its checkpoint already on disk.
    const std::unique_ptr<TraversalIndex> again = TraversalIndex::Build(columns);
    IndexCheckpointer checkpointer(*again, path, std::chrono::milliseconds(1));
    for (int i = 0; i < 20000 && checkpointer.checkpoints() < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(checkpointer.checkpoints() >= 3);
    CHECK_EQ(checkpointer.writes(), 0u);
  }
  {
    // A different index at that path is written.
    const EventColumns other_columns = GenerateEvents(StoreOptions{7, 3000, 150});
    const std::unique_ptr<TraversalIndex> other = TraversalIndex::Build(other_columns);
    IndexCheckpointer checkpointer(*other, path, std::chrono::milliseconds(1));
    for (int i = 0; i < 20000 && checkpointer.checkpoints() < 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK_EQ(checkpointer.writes(), 1u);
  }
  std::remove(path.c_str());
}

TEST(FromPartsRejectsInconsistentArrays) {
  CHECK(TraversalIndex::FromParts({0, 1}, {0}, {5}, {0}) != nullptr);
  CHECK(TraversalIndex::FromParts({0, 2}, {0}, {5}, {0}) == nullptr);  // offsets overrun
  CHECK(TraversalIndex::FromParts({0, 1}, {3}, {5}, {0}) == nullptr);  // target out of range
  CHECK(TraversalIndex::FromParts({0, 1}, {0}, {}, {0}) == nullptr);   // missing times
}
