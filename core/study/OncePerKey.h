#pragma once
// Values computed once per key, on first use, each under a lock of its own: computing one key (a
// data set's load, phase 1's choice for one optimizer) does not hold up the callers of the others.
// A computation that throws is not kept, so a later call tries again. Thread-safe.
#include <map>
#include <mutex>
#include <optional>

namespace ml {

template <class Key, class Value>
class OncePerKey {
public:
    template <class Make>
    Value get(const Key& key, Make&& make) {
        Entry* entry = nullptr;
        {
            const std::lock_guard lock(mutex_);
            entry = &entries_[key];  // std::map's nodes stay where they are
        }
        const std::lock_guard lock(entry->mutex);
        if (!entry->value) entry->value.emplace(make());
        return *entry->value;
    }

private:
    struct Entry {
        std::mutex mutex;  // held while the value is computed
        std::optional<Value> value;
    };
    std::mutex mutex_;  // guards the map itself
    std::map<Key, Entry> entries_;
};

}  // namespace ml
