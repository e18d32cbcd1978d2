// Temp files of killed writers (atomic_file.h): every AtomicFile holds an exclusive flock on
// its temp file `.<name>.<16 hex digits>.tmp` from creation until the file is renamed into
// place or removed, so a temp file nobody holds locked is a dead writer's (a SIGKILL) and can
// go, while a live writer's is kept. Only the microseconds between a writer's open and its
// flock are unguarded (two runs writing the same target at once).
#pragma once

#include <cstddef>
#include <filesystem>

namespace lightsim {

// Removes the dead temp files of `target` (see above); returns how many. AtomicFile(target)
// calls it first, so each result, report or manifest written clears what killed writes of
// that same file left. Never throws.
std::size_t remove_dead_temp_files(const std::filesystem::path& target);

}  // namespace lightsim
