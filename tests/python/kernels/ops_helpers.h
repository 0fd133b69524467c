// Included by ops.co.cpp: the tests edit a copy of it to check that croktile.load
// rebuilds when a header changes.
#pragma once
#ifndef OPS_SPLIT
#define OPS_SPLIT 2
#endif
