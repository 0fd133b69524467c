// The tiling of vadd: its __co__ code sees these macros, so a change here reruns croktilec.
#pragma once
#define VADD_ROWS 8
#define VADD_COLS 64
#define VADD_TILES 4
