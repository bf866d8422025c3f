/* rlx — command-line tool.
 *
 *   rlx print FILE [--after PASS|all]        parse and print (after a pass); a compiled
 *                                            model (.so) prints as VM bytecode
 *   rlx compile FILE -o MODEL.so [--lib L.so]... [--stats]
 *   rlx run FILE|MODEL.so [-e FUNC] [-i IN.npy|IN.pb]... [-o OUTDIR] [--format npy|pb] [--lib L.so]...
 *           [--threads N] [--bind NAME=IN.pb]...
 *   rlx bench FILE|MODEL.so [-e FUNC] [-i IN.npy]... [--lib L.so]... [--repeat N] [--threads N]
 *
 * FILE is TVMScript text, or an ONNX model when it ends in .onnx (imported into a Relax module
 * with one function "main"). Inputs are .npy files or ONNX TensorProto files (.pb).
 *
 * This file parses the options and dispatches; each command lives in tools/cmd_NAME.c with
 * its --help text. This is the only place that turns a status into a message and an exit
 * code: every error prints one line "rlx: error: ..." and exits with status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* The commands, in the order `rlx --help` lists them; config parses its own arguments. */
static const struct {
  const char* name;
  const char* help;
  rlx_status_t* (*run)(const options_t* o);
} commands[] = {
    {"print", tool_help_print, tool_cmd_print},
    {"compile", tool_help_compile, tool_cmd_compile},
    {"run", tool_help_run, tool_cmd_run},
    {"bench", tool_help_bench, tool_cmd_bench},
    {"export-mlf", tool_help_export_mlf, tool_cmd_export_mlf},
    {"config", tool_help_config, NULL},
};

static void print_usage(FILE* f) {
  fputs("usage: rlx <command> [options]        (rlx --version; rlx COMMAND --help)\n"
        "  FILE is a TVMScript file (.py) or an ONNX model (.onnx); inputs are .npy or ONNX .pb files\n",
        f);
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) fputs(commands[i].help, f);
}

/* The help of one command, or NULL. */
static const char* command_help(const char* name) {
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0) return commands[i].help;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_int_arg(const char* flag, const char* s, int min, int* out) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end || v < min || v > 1000000)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s expects an integer >= %d, got '%s'", flag, min, s);
  *out = (int)v;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_options(int argc, char** argv, options_t* o) {
  memset(o, 0, sizeof(*o));
  o->repeat = 10;
  if (argc < 2) return rlx_status_create(RLX_INVALID_ARGUMENT, "no command given (rlx --help lists the commands)");
  o->command = argv[1];
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = true;
    if (strcmp(a, "-e") == 0 || strcmp(a, "--entry") == 0) {
      if (v) o->entry = v;
    } else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0) {
      if (v && o->n_inputs == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many inputs");
      if (v) o->inputs[o->n_inputs++] = v;
    } else if (strcmp(a, "--lib") == 0) {
      if (v && o->n_libs == MAX_LIBS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --lib");
      if (v) o->libs[o->n_libs++] = v;
    } else if (strcmp(a, "--extern") == 0) {
      if (v && o->n_externs == MAX_EXTERNS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --extern");
      if (v) o->externs[o->n_externs++] = v;
    } else if (strcmp(a, "--style") == 0) {
      if (v && strcmp(v, "full-model") != 0 && strcmp(v, "operator") != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--style expects full-model or operator, got '%s'", v);
      if (v) o->style = v;
    } else if (strcmp(a, "--name") == 0) {
      if (v) o->name = v;
    } else if (strcmp(a, "--defer-extern") == 0) {
      if (v && o->n_defer == MAX_EXTERNS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --defer-extern");
      if (v) o->defer[o->n_defer++] = v;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (v) o->output = v;
    } else if (strcmp(a, "--profile-plot") == 0) {
      if (v) o->profile_plot = v;
    } else if (strcmp(a, "--after") == 0) {
      if (v) o->after = v;
    } else if (strcmp(a, "--bind") == 0) {
      if (v && o->n_binds == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --bind");
      if (v && (!strchr(v, '=') || v[0] == '='))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--bind expects NAME=FILE (.pb or .npy), got '%s'", v);
      if (v) o->binds[o->n_binds++] = v;
    } else if (strcmp(a, "--format") == 0) {
      if (v && strcmp(v, "npy") != 0 && strcmp(v, "pb") != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--format expects npy or pb, got '%s'", v);
      if (v) o->format = v;
    } else if (strcmp(a, "--repeat") == 0) {
      if (v) RLX_RETURN_IF_ERROR(parse_int_arg(a, v, 1, &o->repeat));
    } else if (strcmp(a, "--threads") == 0) {
      if (v) RLX_RETURN_IF_ERROR(parse_int_arg(a, v, 1, &o->threads));
    } else if (strcmp(a, "--target") == 0) {
      if (v) o->target = v;
    } else {
      takes = false;
      if (strcmp(a, "--stats") == 0) o->stats = true;
      else if (strcmp(a, "--profile") == 0) o->profile = true;
      else if (strcmp(a, "--show-meta") == 0) o->show_meta = true;
      else if (a[0] == '-' && a[1] != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "unknown option '%s'\n%s", a,
                                 command_help(o->command) ? command_help(o->command) : "");
      else if (!o->file) o->file = a;
      else return rlx_status_create(RLX_INVALID_ARGUMENT, "unexpected argument '%s'", a);
    }
    if (takes) {
      if (!v) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a value", a);
      i++;
    }
  }
  if (!o->file)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "'%s' needs a FILE\n%s", o->command,
                             command_help(o->command) ? command_help(o->command) : "");
  return NULL;
}

int main(int argc, char** argv) {
  if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
    print_usage(stdout);
    return 0;
  }
  if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
    printf("rlx %s\n", RLX_VERSION);
    return 0;
  }
  for (int i = 2; argc >= 2 && i < argc; i++) {
    if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0) continue;
    const char* help = command_help(argv[1]);
    if (!help) break;
    printf("usage:\n%s", help);
    return 0;
  }
  options_t o;
  rlx_status_t* st = NULL;
  if (argc >= 2 && strcmp(argv[1], "config") == 0) st = tool_cmd_config(argc, argv);
  else st = parse_options(argc, argv, &o);
  if (!st && strcmp(argv[1], "config") != 0) {
    size_t i = 0;
    while (i < sizeof(commands) / sizeof(commands[0]) && strcmp(commands[i].name, o.command) != 0) i++;
    if (i < sizeof(commands) / sizeof(commands[0]) && commands[i].run) st = commands[i].run(&o);
    else st = rlx_status_create(RLX_INVALID_ARGUMENT, "unknown command '%s' (rlx --help lists the commands)", o.command);
  }
  if (st) {
    fprintf(stderr, "rlx: error: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    return 1;
  }
  return 0;
}
