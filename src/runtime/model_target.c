/* The target a compiled model records (vm.h: rlx_vm_model_target): the section
 * `.rlx_target` of the model's ELF file holds the canonical target text, NUL-terminated. It
 * is read from the file, without loading it, so that a model for another architecture or
 * for instructions this CPU lacks gets an error naming them instead of a loader error or an
 * illegal instruction. ELF64 little-endian (x86-64 and aarch64 Linux); every offset and size
 * is checked against the file. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlx/target.h"
#include "rlx/vm.h"

static bool read_at(FILE* f, long off, void* buf, size_t n) {
  return fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n;
}

RLX_MUST_USE rlx_status_t* rlx_vm_model_target(const char* model_so, char** out_text) {
  *out_text = NULL;
  FILE* f = fopen(model_so, "rb");
  if (!f && errno == ENOMEM) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory opening model '%s'", model_so);
  if (!f && access(model_so, F_OK) != 0) return rlx_status_create(RLX_NOT_FOUND, "model '%s' does not exist", model_so);
  if (!f) return rlx_status_create(RLX_IO_ERROR, "cannot open model '%s'", model_so);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  Elf64_Ehdr eh;
  rlx_status_t* st = NULL;
  if (size < (long)sizeof(eh) || !read_at(f, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > (uint64_t)size ||
      (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > (uint64_t)size - eh.e_shoff) {
    st = rlx_status_create(RLX_PARSE_ERROR, "'%s' is not a compiled rlx model (not a 64-bit little-endian ELF file)",
                           model_so);
    goto done;
  }
  Elf64_Shdr names;
  if (!read_at(f, (long)(eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr)), &names, sizeof(names)) ||
      names.sh_offset > (uint64_t)size || names.sh_size > (uint64_t)size - names.sh_offset) {
    st = rlx_status_create(RLX_PARSE_ERROR, "'%s' is corrupted (its section names)", model_so);
    goto done;
  }
  for (int i = 0; i < eh.e_shnum && !*out_text; i++) {
    Elf64_Shdr sh;
    char name[16] = {0};
    if (!read_at(f, (long)(eh.e_shoff + (uint64_t)i * sizeof(sh)), &sh, sizeof(sh))) break;
    if (sh.sh_name >= names.sh_size || !read_at(f, (long)(names.sh_offset + sh.sh_name), name,
                                                 names.sh_size - sh.sh_name < sizeof(name) - 1 ? names.sh_size - sh.sh_name
                                                                                                : sizeof(name) - 1))
      continue;
    if (strcmp(name, ".rlx_target") != 0) continue;
    if (sh.sh_offset > (uint64_t)size || sh.sh_size > (uint64_t)size - sh.sh_offset || sh.sh_size == 0 ||
        sh.sh_size > 4096) {
      st = rlx_status_create(RLX_PARSE_ERROR, "'%s' is corrupted (its target record)", model_so);
      goto done;
    }
    char* text = calloc(1, sh.sh_size + 1);
    if (!text) {
      st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory reading the target of '%s'", model_so);
      goto done;
    }
    if (!read_at(f, (long)sh.sh_offset, text, sh.sh_size)) {
      free(text);
      st = rlx_status_create(RLX_IO_ERROR, "cannot read the target of '%s'", model_so);
      goto done;
    }
    *out_text = text;
  }
  if (!*out_text)
    st = rlx_status_create(RLX_PARSE_ERROR,
                           "'%s' is not a compiled rlx model: it records no target (a model built by an older rlx "
                           "must be rebuilt)",
                           model_so);
done:
  fclose(f);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_check_model_target(const char* model_so) {
  char* text = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_model_target(model_so, &text));
  rlx_target_t* t = NULL;
  rlx_status_t* st = rlx_target_parse(text, &t);
  if (st) st = rlx_status_annotate(st, "model '%s' records target '%s'", model_so, text);
  if (!st) st = rlx_status_annotate(rlx_target_check_host(t), "model '%s'", model_so);
  rlx_target_free(t);
  free(text);
  return st;
}
