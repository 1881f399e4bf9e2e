#include "CPUHints.h"
