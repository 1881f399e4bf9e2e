#include "IndexIntrinsics.h"
