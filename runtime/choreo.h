// choreo.h - the reference compiler's (Choreo's) runtime header name: its programs
// `#include "choreo.h"`. Everything is in croktile.h, which every generated translation
// unit includes anyway; namespace choreo is namespace croktile.
#pragma once

#include "croktile.h"
