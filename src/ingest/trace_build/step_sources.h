// The sources of a rank's steps, strongest first (steps.cc tries them in this order). Each one,
// when it finds steps, fills trace.steps with their CPU ranges (numbered, in time order),
// trace.step_source, trace.step_name and trace.main_thread, and returns true; otherwise it
// leaves the trace as it was and returns false. Windows on the GPU come later (steps.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace commdx::ingest::trace_build {

// The training-loop thread when no step marks say so: a thread named like the main one
// ("pt_main_thread", "MainThread"), else the process's first thread (pid == tid), else the one
// with most CPU ops; autograd threads ("pt_autograd_0") only when there is nothing else.
int32_t LikelyMainThread(const RankTrace& t);

// A name with every run of digits replaced by "N": "iteration_12" -> "iteration_N".
std::string NamePattern(std::string_view name);

// ProfilerStep#N on the thread that has most of them.
bool StepsFromProfilerMarks(RankTrace& t);

// The user's own iteration marks: a user annotation (or a record_function written as a cpu_op
// by older PyTorch; never an aten::/c10d:: operator) whose name pattern repeats >= 3 times on
// one thread without overlapping itself and covers at least half of that thread's span and of
// the likely main thread's span. Data-loading, collective and Optimizer.* regions never count.
bool StepsFromAnnotation(RankTrace& t);

// One step from the end of one Optimizer.step#... to the end of the next. The first step runs
// from the thread's first op to the first end: its start is not a seen boundary, so it is cut.
// What follows the last end is in no step.
bool StepsFromOptimizer(RankTrace& t);

// One step per repetition of the rank's sequence of collectives (type, size, group), found as
// the shortest period that repeats >= 3 times at regular intervals; a step starts at the
// collective of the period that follows the longest gap. Leading part cut, tail in no step.
bool StepsFromCollectives(RankTrace& t);

}  // namespace commdx::ingest::trace_build
