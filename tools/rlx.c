/* rlx command-line tool (placeholder until the commands land). */
#include <stdio.h>
int main(void) {
  fprintf(stderr, "rlx: no commands yet\n");
  return 1;
}
