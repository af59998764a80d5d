// Per-iteration times from timing events placed every `stride` iterations: each iteration of a
// group gets the group's mean, so the sample count (and the adaptive loop, median and spread
// built on it) stays one per iteration. With stride 1 it is the identity.
#pragma once

#include "bench/backend.h"

namespace commdx::bench {

// `groups[r]` holds one elapsed time (ns) per group of rank r: groups of `stride` iterations,
// the last one shorter when `iters` is not a multiple. Returns `iters` samples per rank.
TimeMatrix SpreadGroups(const TimeMatrix& groups, int iters, int stride);

}  // namespace commdx::bench
