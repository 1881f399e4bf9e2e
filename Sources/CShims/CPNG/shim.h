// libpng's simplified write API: it catches libpng's errors itself (setjmp/longjmp, which
// Swift cannot take part in) and reports failure as a return value.
#include <png.h>
