// Order statistics over per-iteration times, and the slowest-rank summary of a TimeMatrix.
#pragma once

#include <vector>

#include "bench/backend.h"

namespace commdx::bench {

// Linear-interpolated percentile (q in [0,1]) of an unsorted sample; NaN when empty.
double Percentile(std::vector<double> values, double q);
double Median(std::vector<double> values);

struct SampleSummary {
  double median_ns = 0;
  double p10_ns = 0;
  double p90_ns = 0;
  int slowest_rank = -1;  // rank with the largest median
  int samples = 0;        // per rank
};

// Appends batch columns to the accumulated matrix (same rank count).
void AppendBatch(TimeMatrix& all, const TimeMatrix& batch);

// The slowest rank's median and spread: a collective is only done when its last rank is.
SampleSummary Summarize(const TimeMatrix& times);

}  // namespace commdx::bench
