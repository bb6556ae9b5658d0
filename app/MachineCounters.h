#pragma once
// Linux's machine-wide counters, read before and after a piece of work to explain a throughput
// figure: how busy the cores were (/proc/stat, every process and the kernel's own threads) and how
// many writes and cache flushes the disk holding a folder was sent (/sys/dev/block/MAJ:MIN/stat).
// Where a file is missing (another system, a virtual file system) the counters read as zero.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <array>
#include <cstdio>
#include <string>

namespace ml {

struct MachineCounters {
    long long busyTicks = 0, allTicks = 0;  // every core, since boot
    long long diskWrites = 0, diskFlushes = 0;

    // Counters now, the disk being the one that holds `folder`.
    static MachineCounters read(const std::string& folder) {
        MachineCounters counters;
        if (std::FILE* file = std::fopen("/proc/stat", "r")) {
            // cpu  user nice system idle iowait irq softirq steal
            std::array<long long, 8> ticks{};
            if (std::fscanf(file, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &ticks[0], &ticks[1], &ticks[2],
                            &ticks[3], &ticks[4], &ticks[5], &ticks[6], &ticks[7]) == 8) {
                for (const long long t : ticks) counters.allTicks += t;
                counters.busyTicks = counters.allTicks - ticks[3] - ticks[4];
            }
            std::fclose(file);
        }
        struct stat info {};
        if (::stat(folder.c_str(), &info) != 0) return counters;
        const std::string path =
            "/sys/dev/block/" + std::to_string(major(info.st_dev)) + ":" + std::to_string(minor(info.st_dev)) + "/stat";
        if (std::FILE* file = std::fopen(path.c_str(), "r")) {
            // Documentation/block/stat.rst: field 5 is writes completed, field 16 flushes completed.
            std::array<long long, 17> fields{};
            int count = 0;
            while (count < 17 && std::fscanf(file, "%lld", &fields[count]) == 1) ++count;
            if (count >= 5) counters.diskWrites = fields[4];
            if (count >= 16) counters.diskFlushes = fields[15];
            std::fclose(file);
        }
        return counters;
    }

    // The fraction of every core's time spent busy between `before` and this.
    double busySince(const MachineCounters& before) const {
        const long long all = allTicks - before.allTicks;
        return all > 0 ? static_cast<double>(busyTicks - before.busyTicks) / all : 0.0;
    }
};

}  // namespace ml
