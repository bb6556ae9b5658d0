#pragma once
// The files of `momentum-lab-cli landscape RUN --out DIR` (columns in docs/guide/landscape.md):
//   landscape.csv     x,y,loss          one row per grid point, x fastest
//   trajectories.csv  run,step,x,y      every recorded point of every run, projected
//   slice.csv         t,loss            the line between the first two runs' final weights
// Each is written atomically (io/Files.h); FileError names the path.
#include "landscape/LossGrid.h"
#include "landscape/LossSlice.h"
#include "landscape/Trajectory.h"

#include <QString>

#include <vector>

namespace ml {

namespace landscapefiles {
inline constexpr const char* kGrid = "landscape.csv";
inline constexpr const char* kTrajectories = "trajectories.csv";
inline constexpr const char* kSlice = "slice.csv";
}  // namespace landscapefiles

void writeGridCsv(const QString& path, const LossGrid& grid);
void writeTrajectoriesCsv(const QString& path, const std::vector<Trajectory>& trajectories,
                          const std::vector<std::vector<Eigen::Vector2d>>& projected);
void writeSliceCsv(const QString& path, const LossSlice& slice);

}  // namespace ml
