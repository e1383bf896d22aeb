#include "textflag.h"

// func PrefetchW(p *byte)
TEXT ·PrefetchW(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08 // PREFETCHW (AX)
	RET
