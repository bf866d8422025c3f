/* Commands of the rlx tool that live in their own files (tools/cmd_*.c); tools/rlx.c
 * dispatches to them. Each returns a status; only main() prints it. */
#ifndef RLX_TOOL_H
#define RLX_TOOL_H

#include <stdio.h>

#include "ir/ir.h"
#include "rlx/rlx.h"
#include "rlx/vm.h"

/* rlx config --cflags | --libs | --version (argv as main got it). */
rlx_status_t* tool_cmd_config(int argc, char** argv);

/* Prints the VM's profile (rlx_vm_profile_get) as a table sorted by time, with a last row
 * "(vm_interpreter_and_other)" so the pct column sums to 100; plot_path (NULL: none), a .png
 * or .svg, gets the table drawn as a horizontal bar chart by python3 + matplotlib
 * ($RLX_PYTHON, default python3). profile.c. */
rlx_status_t* tool_profile_print(rlx_vm_t* vm, const char* plot_path);

/* Runs the pipeline up to the default schedule on m and prints to out every block left
 * without its real schedule ("unscheduled FUNC block BLOCK (KIND, N iterations): WHY"),
 * after a count line. profile.c. */
rlx_status_t* tool_sched_report(rlx_ctx_t* ctx, rlx_module_t* m, FILE* out);

#endif
