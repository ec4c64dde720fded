#include "index/index_persistence.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <system_error>
#include <thread>

#include "index/traversal_index.h"

namespace eventstore {
namespace {

constexpr uint64_t kMagic = 0x31584449'54525645ULL;  // "EVRTIDX1", little-endian

template <typename T>
bool Take(const std::vector<uint8_t>& in, size_t* at, size_t count, std::vector<T>* out) {
  if (count > (in.size() - *at) / sizeof(T)) return false;
  out->resize(count);
  if (count != 0) std::memcpy(out->data(), in.data() + *at, count * sizeof(T));
  *at += count * sizeof(T);
  return true;
}

}  // namespace

namespace {

struct Segment {
  const void* data;
  size_t bytes;
};

/// What a checkpoint holds, in file order: the header, then the four arrays.
std::vector<Segment> Segments(const TraversalIndex& index, const uint64_t (&header)[3]) {
  return {{header, sizeof(header)},
          {index.offsets().data(), index.offsets().size() * sizeof(uint32_t)},
          {index.targets().data(), index.targets().size() * sizeof(uint32_t)},
          {index.edge_times().data(), index.edge_times().size() * sizeof(int64_t)},
          {index.edge_events().data(), index.edge_events().size() * sizeof(uint32_t)}};
}

/// Copies bytes [begin, end) of the segments' concatenation to out + begin.
void CopyRange(const std::vector<Segment>& segments, size_t begin, size_t end, uint8_t* out) {
  size_t at = 0;
  for (const Segment& segment : segments) {
    const size_t low = std::max(begin, at);
    const size_t high = std::min(end, at + segment.bytes);
    if (low < high) {
      std::memcpy(out + low, static_cast<const uint8_t*>(segment.data) + (low - at), high - low);
    }
    at += segment.bytes;
    if (at >= end) break;
  }
}

uint64_t HashBlock(const uint8_t* data, size_t size) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ size;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  for (; i < size; ++i) h = (h ^ data[i]) * 0x100000001B3ULL;
  return h;
}

uint64_t CombineBlockHashes(const std::vector<uint64_t>& hashes, size_t size) {
  uint64_t h = 0xC2B2AE3D27D4EB4FULL ^ size;
  for (uint64_t block : hashes) {
    h = (h ^ block) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  return h;
}

size_t BlockCount(size_t size) { return (size + kCheckpointBlockBytes - 1) / kCheckpointBlockBytes; }

}  // namespace

void SerializeTraversalIndex(const TraversalIndex& index, std::vector<uint8_t>* out) {
  SerializeAndChecksum(index, 1, out);
}

uint64_t Checksum64(const uint8_t* data, size_t size) {
  std::vector<uint64_t> hashes(BlockCount(size));
  for (size_t b = 0; b < hashes.size(); ++b) {
    const size_t begin = b * kCheckpointBlockBytes;
    hashes[b] = HashBlock(data + begin, std::min(size - begin, kCheckpointBlockBytes));
  }
  return CombineBlockHashes(hashes, size);
}

uint64_t SerializeAndChecksum(const TraversalIndex& index, unsigned threads,
                              std::vector<uint8_t>* out) {
  const uint64_t header[3] = {kMagic, index.offsets().size(), index.edge_count()};
  const std::vector<Segment> segments = Segments(index, header);
  size_t total = 0;
  for (const Segment& segment : segments) total += segment.bytes;
  out->resize(total);
  std::vector<uint64_t> hashes(BlockCount(total));
  // Threads take blocks in turn; each block is copied, then hashed while it is
  // still in cache.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t b = next++; b < hashes.size(); b = next++) {
      const size_t begin = b * kCheckpointBlockBytes;
      const size_t end = std::min(total, begin + kCheckpointBlockBytes);
      CopyRange(segments, begin, end, out->data());
      hashes[b] = HashBlock(out->data() + begin, end - begin);
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>(std::max(1u, threads), hashes.size());
  try {
    for (size_t t = 1; t < wanted; ++t) helpers.emplace_back(work);
  } catch (const std::system_error&) {
    // No more threads: the ones running (and this one) take every block.
  }
  work();
  for (std::thread& helper : helpers) helper.join();
  return CombineBlockHashes(hashes, total);
}

bool WriteCheckpointFile(const std::string& path, const std::vector<uint8_t>& serialized,
                         uint64_t checksum, std::string* error) {
  // Unique per process and per call, so concurrent writers never share a temporary.
  static std::atomic<uint64_t> sequence{0};
  const std::string temp =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(sequence++);
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(serialized.data()),
               static_cast<std::streamsize>(serialized.size()));
    file.write(reinterpret_cast<const char*>(&checksum), sizeof(checksum));
    if (!file.flush()) {
      *error = "cannot write " + temp;
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + temp + " to " + path + ": " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

std::unique_ptr<TraversalIndex> LoadTraversalIndex(const std::string& path, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot open " + path;
    return nullptr;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 4 * sizeof(uint64_t)) {
    *error = path + " is too short to be a traversal index checkpoint";
    return nullptr;
  }
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - sizeof(stored), sizeof(stored));
  bytes.resize(bytes.size() - sizeof(stored));
  if (Checksum64(bytes.data(), bytes.size()) != stored) {
    *error = path + " fails its checksum (a torn or foreign file)";
    return nullptr;
  }
  size_t at = 0;
  std::vector<uint64_t> header;
  std::vector<uint32_t> offsets, targets, events;
  std::vector<int64_t> times;
  if (!Take(bytes, &at, 3, &header) || header[0] != kMagic ||
      !Take(bytes, &at, header[1], &offsets) || !Take(bytes, &at, header[2], &targets) ||
      !Take(bytes, &at, header[2], &times) || !Take(bytes, &at, header[2], &events) ||
      at != bytes.size()) {
    *error = path + " is not a traversal index checkpoint";
    return nullptr;
  }
  std::unique_ptr<TraversalIndex> index = TraversalIndex::FromParts(
      std::move(offsets), std::move(targets), std::move(times), std::move(events));
  if (index == nullptr) *error = path + " holds an inconsistent index";
  return index;
}

std::string DefaultCheckpointPath(size_t edges, uint32_t entities) {
  const char* dir = std::getenv("EVENTSTORE_DATA_DIR");
  if (dir == nullptr || *dir == '\0') dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = "/tmp";
  return std::string(dir) + "/eventstore-traversal-" + std::to_string(edges) + "-" +
         std::to_string(entities) + ".idx";
}

bool FileHoldsCheckpoint(const std::string& path, size_t serialized_bytes, uint64_t checksum) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file || static_cast<uint64_t>(file.tellg()) != serialized_bytes + sizeof(checksum)) {
    return false;
  }
  uint64_t stored = 0;
  file.seekg(-static_cast<std::streamoff>(sizeof(stored)), std::ios::end);
  file.read(reinterpret_cast<char*>(&stored), sizeof(stored));
  return file && stored == checksum;
}

IndexCheckpointer::IndexCheckpointer(const TraversalIndex& index, std::string path,
                                     std::chrono::milliseconds period)
    : index_(index),
      path_(std::move(path)),
      period_(period),
      thread_([this] { Loop(); }) {}

IndexCheckpointer::~IndexCheckpointer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void IndexCheckpointer::Loop() {
  std::vector<uint8_t> buffer;
  uint64_t written = 0;
  bool warned = false;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    const auto due = std::chrono::steady_clock::now() + period_;
    lock.unlock();
    uint64_t checksum = written;
    try {
      // A thread per block (SerializeAndChecksum uses no more threads than blocks).
      checksum = SerializeAndChecksum(index_, std::numeric_limits<unsigned>::max(), &buffer);
    } catch (const std::exception& e) {
      // Out of memory for the buffer: skip this checkpoint, try again next period.
      if (!warned) std::cerr << "eventstore: traversal index checkpoint failed: " << e.what() << "\n";
      warned = true;
    }
    // A file already holding this very checkpoint (an index rebuilt from the
    // same columns, by this process or an earlier one) is not written again:
    // rewriting 16 MB that did not change only feeds the disk.
    if (checksum != written && FileHoldsCheckpoint(path_, buffer.size(), checksum)) {
      written = checksum;
    }
    if (checksum != written) {
      std::string error;
      if (WriteCheckpointFile(path_, buffer, checksum, &error)) {
        written = checksum;
        ++writes_;
      } else if (!warned) {
        std::cerr << "eventstore: traversal index checkpoint failed: " << error << "\n";
        warned = true;
      }
    }
    ++checkpoints_;
    lock.lock();
    wake_.wait_until(lock, due, [this] { return stop_; });
  }
}

}  // namespace eventstore
