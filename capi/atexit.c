// The exit hook of a world that sessions left idle (api_env.go): a process
// whose last session ended keeps its world so that a new session can use
// it, and shuts it down as it exits.

#include <stdlib.h>

extern void gmpi_atexit(void);

static void at_exit(void) { gmpi_atexit(); }

void gmpi_register_atexit(void) { atexit(at_exit); }
