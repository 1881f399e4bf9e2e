// zlib, to read the gazetteer's gzip'd data file (Foundation has no inflate on Linux).
#include <zlib.h>
