// The shims are inline in the header; SwiftPM needs one source file per C target.
#include "GeodesyIntrinsics.h"
