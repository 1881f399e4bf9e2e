// glibc's posix_spawn extensions (2.29 and 2.34), which Swift's Glibc module does not show: it
// is built without _GNU_SOURCE. The tests' ChildProcess needs them to give a child its working
// directory and to close the test runner's descriptors in it.
#include <spawn.h>
// malloc.h, which that module leaves out: mallinfo2's bytes in use, for the memory tests.
#include <malloc.h>

extern int posix_spawn_file_actions_addchdir_np(
    posix_spawn_file_actions_t *__restrict actions, const char *__restrict path);
extern int posix_spawn_file_actions_addclosefrom_np(
    posix_spawn_file_actions_t *actions, int from);
