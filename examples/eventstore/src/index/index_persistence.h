#pragma once

// Persistence of the traversal index: a file format, a loader, and a
// write-behind checkpointer.
//
// Rebuilding the index after a crash costs a full pass over the relationship
// columns plus a sort of every adjacency list, so the engine keeps a recent
// copy on disk. The checkpointer does that in the background: while an index
// is resident, it re-serializes and checksums the index at a fixed cadence and
// rewrites the file whenever the checksum differs from the one in the file.
// It does not know whether the index changed since the last checkpoint (future
// incremental updates will change it in place), so it always re-reads it:
// that is the price of losing at most one period of work on a crash. So that a
// large index still fits in its period, a checkpoint is cut into blocks and
// every block gets a thread of its own: a checkpoint takes about as long as
// one block, however large the index grows.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace eventstore {

class TraversalIndex;

/// Time between the starts of two checkpoints: a crash loses at most this
/// much work. A checkpoint that takes longer than the period is followed by
/// the next one at once.
constexpr std::chrono::milliseconds kCheckpointPeriod{10};

/// The unit a checkpoint is copied and checksummed in.
constexpr size_t kCheckpointBlockBytes = size_t{1} << 20;

/// Serializes `index` into `out` (replacing its contents): a header, then the
/// four arrays, then nothing else. The checksum is not part of the buffer.
void SerializeTraversalIndex(const TraversalIndex& index, std::vector<uint8_t>* out);

/// A 64-bit checksum of `size` bytes: each kCheckpointBlockBytes block hashed
/// word-wise (multiply-xor), the block hashes combined in order. Blocks hash
/// independently, so threads can share the work. Not cryptographic.
uint64_t Checksum64(const uint8_t* data, size_t size);

/// Does what SerializeTraversalIndex and then Checksum64 do, on `threads`
/// threads (the calling thread is one; never more threads than blocks), and
/// returns the checksum. `out` keeps
/// its capacity, so a buffer reused for the same index is not reallocated.
uint64_t SerializeAndChecksum(const TraversalIndex& index, unsigned threads,
                              std::vector<uint8_t>* out);

/// Writes a checkpoint file (serialized index + trailing checksum) atomically:
/// a temporary file in the same directory, then a rename. Returns false and
/// sets `error` on failure.
bool WriteCheckpointFile(const std::string& path, const std::vector<uint8_t>& serialized,
                         uint64_t checksum, std::string* error);

/// Reads a checkpoint file back. Returns nullptr and sets `error` if the file
/// is missing, truncated, fails its checksum or does not describe an index.
std::unique_ptr<TraversalIndex> LoadTraversalIndex(const std::string& path, std::string* error);

/// True if the file at `path` is a checkpoint of `serialized_bytes` bytes whose
/// stored checksum is `checksum` (its size and trailer only; the loader verifies
/// the contents).
bool FileHoldsCheckpoint(const std::string& path, size_t serialized_bytes, uint64_t checksum);

/// Where the checkpoint of an index of this shape goes: in $EVENTSTORE_DATA_DIR,
/// else $TMPDIR, else /tmp.
std::string DefaultCheckpointPath(size_t edges, uint32_t entities);

/// Keeps the file at `path` no older than one period behind `index`, on its
/// own thread (helped, during each checkpoint, by one more thread per further
/// block of the serialized index), from construction until destruction.
class IndexCheckpointer {
 public:
  IndexCheckpointer(const TraversalIndex& index, std::string path,
                    std::chrono::milliseconds period);
  /// Stops the thread (waiting for a checkpoint in progress to finish).
  ~IndexCheckpointer();
  IndexCheckpointer(const IndexCheckpointer&) = delete;
  IndexCheckpointer& operator=(const IndexCheckpointer&) = delete;

  const std::string& path() const { return path_; }
  /// Checkpoints taken (serialized and checksummed) so far.
  uint64_t checkpoints() const { return checkpoints_.load(); }
  /// Checkpoints that rewrote the file.
  uint64_t writes() const { return writes_.load(); }

 private:
  void Loop();

  const TraversalIndex& index_;
  const std::string path_;
  const std::chrono::milliseconds period_;
  std::atomic<uint64_t> checkpoints_{0};
  std::atomic<uint64_t> writes_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above is initialized
};

}  // namespace eventstore
