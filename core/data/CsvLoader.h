#pragma once
// User data sets in CSV files ("csv:PATH").
//
// Format: a header row, then one sample per line. Columns named x... (x1, x_len, ...) are
// inputs; columns named y... are regression targets; or exactly one column named `label` holds
// non-negative integer class indices (classification; numClasses = largest label + 1, at most
// kMaxCsvClasses). Cells must be plain numbers (no quoting); spaces around cells and blank lines
// are ignored; a ".gz" file name means gzip-compressed CSV. Features are used as they are (no
// standardisation).
//
// Split: "csv:FILE" shuffles the rows with the fixed seed kFixedSplitSeed (Split.h, independent of
// the experiment seed) and puts the last floor(n / 5) rows (at least 1) in the test split.
// "csv:TRAIN,TEST" (two files with the same header) uses the files as given.
#include "Dataset.h"
#include "DenseDataset.h"

#include <string>

namespace ml {

inline constexpr int kMaxCsvClasses = 10000;

// Loads the whole file as one data set. If numClasses > 0 it is used for a classification
// file (labels must be below it); otherwise it is the largest label + 1.
DenseDataset loadCsvFile(const std::string& path, int numClasses = 0);

// `paths` is the part after "csv:": "FILE" or "TRAIN,TEST". spec goes into DataSplit::spec.
DataSplit loadCsvDataSplit(const std::string& paths, const std::string& spec);

}  // namespace ml
