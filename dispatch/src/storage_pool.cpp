// The per-thread free lists of Storage chunks (storage_pool.hpp).
#include "storage_pool.hpp"

namespace bp::detail {

thread_local constinit StorageChunks::List StorageChunks::t_list
    __attribute__((tls_model("initial-exec")));

namespace {
// Empties and closes this thread's list when the thread ends.
struct ListOwner {
  ~ListOwner() { StorageChunks::close_this_thread(); }
};
}  // namespace

void StorageChunks::watch_thread() {
  thread_local ListOwner owner;
  (void)&owner;  // constructs it, so its destructor runs at thread exit
  t_list.watched = true;
}

void StorageChunks::close_this_thread() {
  List& list = t_list;
  for (Chunk* c = list.head; c != nullptr;) {
    Chunk* next = c->next;
    ::operator delete(c);
    c = next;
  }
  list.head = nullptr;
  list.count = kMaxFreeChunks;
}

}  // namespace bp::detail
