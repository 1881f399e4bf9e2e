// jemalloc's options, which it reads from this symbol of the executable when it starts (before
// any environment could be set from Swift). Blocks of 128 KiB or more (a large reply, a search's
// buffers) get their own arena, which returns them to the system once freed, as the mmap
// threshold does under glibc's malloc (Server's MemoryTuning): with the default 10 s decay, 32
// unread pipelines of large replies left 11 to 13 MB resident, against 8 MB with this option.
// Under glibc's malloc (the sanitizer builds) nothing reads it.
const char *malloc_conf = "oversize_threshold:131072";
