// expect: correct
// explicit: ConstructorCannotReadSecretsOrCache (the secrets made first)
// Tries, while being loaded, to read kforge's secret seeds and cached reference outputs (the
// runner's working folder is inside .kforge/tmp/eval-*/). Caught by Landlock: only system libraries
// and the kernel's own folder are readable. It computes correctly and reports what it could read.
#include <cstdio>
static int secrets_opened = 0, cache_listed = 0;
__attribute__((constructor)) static void on_load() {
  const char* guesses[] = {"../../secrets/12p_rmsnorm.seeds", "../../../secrets/12p_rmsnorm.seeds",
                           "../../../../.kforge/secrets/12p_rmsnorm.seeds"};
  for (const char* path : guesses)
    if (FILE* f = std::fopen(path, "r")) {
      secrets_opened = 1;
      std::fclose(f);
    }
  if (FILE* f = std::fopen("../../../cache/ref", "r")) {
    cache_listed = 1;
    std::fclose(f);
  }
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static bool reported = false;
  if (!reported)
    std::printf("secrets_opened=%d cache_opened=%d\n", secrets_opened, cache_listed),
        std::fflush(stdout);
  reported = true;
  rmsnorm_correct(x, scale, y);
}
