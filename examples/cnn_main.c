/* A plain C program around the Model Library Format export of examples/cnn.onnx: no rlx
 * library, no dlopen, no heap. Reads a float32 .npy image (1x3x32x32), runs the model
 * through TVM's AOT interface (tvmgen_default_run), prints the 10 logits and writes them raw
 * to argv[2]. Build (scripts/build.sh does it), CFLAGS the "cflags" of OUT/metadata.json:
 *   cc -std=c11 CFLAGS -I OUT/codegen/host/include OUT/codegen/host/src/*.c OUT/runtime/src/*.c \
 *      examples/cnn_main.c -lm -o cnn
 */
#include <stdio.h>
#include <string.h>

#include "tvmgen_default.h"

static float image[TVMGEN_DEFAULT_IMAGE_SIZE / sizeof(float)];
static float logits[TVMGEN_DEFAULT_LOGITS_SIZE / sizeof(float)];

int main(int argc, char** argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s IMAGE.npy OUT.bin\n", argv[0]), 2;
  FILE* f = fopen(argv[1], "rb");
  unsigned char head[10];
  if (!f || fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) return fprintf(stderr, "bad .npy\n"), 1;
  fseek(f, 10 + head[8] + 256 * head[9], SEEK_SET); /* skip the version 1 header */
  if (fread(image, 1, sizeof image, f) != sizeof image) return fprintf(stderr, "short .npy\n"), 1;
  fclose(f);
  struct tvmgen_default_inputs in = {image};
  struct tvmgen_default_outputs out = {logits};
  if (tvmgen_default_run(&in, &out) != 0) return fprintf(stderr, "the model failed\n"), 1;
  printf("plain C logits:");
  for (size_t i = 0; i < sizeof logits / sizeof logits[0]; i++) printf(" %.5f", logits[i]);
  printf("\n");
  f = fopen(argv[2], "wb");
  if (!f || fwrite(logits, 1, sizeof logits, f) != sizeof logits) return fprintf(stderr, "cannot write\n"), 1;
  return fclose(f) != 0;
}
