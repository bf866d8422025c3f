/* Commands of the rlx tool that live in their own files (tools/cmd_*.c); tools/rlx.c
 * dispatches to them. Each returns a status; only main() prints it. */
#ifndef RLX_TOOL_H
#define RLX_TOOL_H

#include "rlx/rlx.h"

/* rlx config --cflags | --libs | --version (argv as main got it). */
rlx_status_t* tool_cmd_config(int argc, char** argv);

#endif
