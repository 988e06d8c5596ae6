// [executor] in kforge.toml: every key read, mistakes named with file, line and key; and the
// sbatch command line the Slurm executor builds from it (what keeps API keys off nodes and
// timing jobs alone on theirs).
#include "kforge/eval/executor_config.h"

#include <gmock/gmock.h>

#include "kforge/eval/slurm_commands.h"

namespace kforge::eval {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ExecutorConfig, ReadsEveryKey) {
  auto c = parse_executor_config(R"([executor]
kind = "slurm"
partition = "cpu"
account = "proj42"
time_limit = "00:20:00"
constraint = "avx512"
gpus_per_job = 1
shared_folder = "/scratch/me/kforge"
max_jobs = 16
retries = 3
poll_s = 0.25
sbatch_args = ["--qos=short"]
)",
                                 "kforge.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->kind, "slurm");
  EXPECT_EQ(c->partition, "cpu");
  EXPECT_EQ(c->account, "proj42");
  EXPECT_EQ(c->time_limit, "00:20:00");
  EXPECT_EQ(c->gpus_per_job, 1);
  EXPECT_EQ(c->shared_folder, "/scratch/me/kforge");
  EXPECT_EQ(c->max_jobs, 16);
  EXPECT_EQ(c->retries, 3);
  EXPECT_DOUBLE_EQ(c->poll_s, 0.25);
  EXPECT_THAT(c->sbatch_args, Contains("--qos=short"));
}

TEST(ExecutorConfig, NoTableIsLocal) {
  auto c = parse_executor_config("[models]\ndefault = \"openai:gpt-4o\"\n", "kforge.toml");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, "local");
}

TEST(ExecutorConfig, MistakesNameFileLineAndKey) {
  auto bad = [](const std::string& text) {
    auto c = parse_executor_config(text, "kforge.toml");
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : c.error().message;
  };
  EXPECT_EQ(bad("[executor]\nkind = \"slurm\"\nmax_jobs = 0\n"),
            "kforge.toml:3:12: executor.max_jobs: must be a whole number from 1 to 10000");
  EXPECT_THAT(bad("[executor]\npartiton = \"cpu\"\n"),
              HasSubstr("kforge.toml:2:12: executor.partiton: unknown key"));
  EXPECT_THAT(bad("[executor]\npartiton = \"cpu\"\n"), HasSubstr("did you mean 'partition'"));
  EXPECT_THAT(bad("[executor]\nkind = \"k8s\"\n"), HasSubstr("must be local or slurm"));
  EXPECT_THAT(bad("[executor]\nshared_folder = \"rel/dir\"\n"), HasSubstr("absolute path"));
  EXPECT_THAT(bad("[executor]\ntime_limit = \"half an hour\"\n"), HasSubstr("Slurm time"));
  EXPECT_THAT(bad("[executer]\nkind = \"slurm\"\n"), HasSubstr("did you mean 'executor'"));
  // An --export of the user's would hand the job this process's environment, API keys included.
  EXPECT_THAT(bad("[executor]\nsbatch_args = [\"--export=ALL\"]\n"),
              HasSubstr("kforge.toml:2:16: executor.sbatch_args: --export is kforge's"));
}

TEST(SbatchArgv, NoEnvironmentAndExclusiveTiming) {
  ExecutorConfig c;
  c.partition = "cpu";
  c.gpus_per_job = 1;
  JobRequest timing{"kforge-x", "/s/jobs/x-0", "/s/jobs/x-0/job.sh", true, 1};
  auto a = sbatch_argv(c, timing);
  EXPECT_THAT(a, Contains("--export=NONE"));
  EXPECT_THAT(a, Contains("--parsable"));
  EXPECT_THAT(a, Contains("--exclusive"));
  EXPECT_THAT(a, Contains("--partition=cpu"));
  EXPECT_THAT(a, Contains("--gpus=1"));
  EXPECT_EQ(a.back(), "/s/jobs/x-0/job.sh");
  JobRequest check{"kforge-y", "/s/jobs/y-0", "/s/jobs/y-0/job.sh", false, 2};
  auto b = sbatch_argv(c, check);
  EXPECT_THAT(b, Not(Contains("--exclusive"))) << "compiles and checks may share a node";
  EXPECT_THAT(b, Contains("--cpus-per-task=2"));
}

TEST(JobPhase, LostJobsAreTheOnesWorthResubmitting) {
  EXPECT_EQ(phase_of("RUNNING"), JobPhase::in_flight);
  EXPECT_EQ(phase_of("PENDING"), JobPhase::in_flight);
  EXPECT_EQ(phase_of("COMPLETED"), JobPhase::completed);
  EXPECT_EQ(phase_of("CANCELLED"), JobPhase::lost);
  EXPECT_EQ(phase_of("CANCELLED by 0"), JobPhase::lost);
  EXPECT_EQ(phase_of("NODE_FAIL"), JobPhase::lost);
  EXPECT_EQ(phase_of("PREEMPTED"), JobPhase::lost);
  EXPECT_EQ(phase_of("FAILED"), JobPhase::failed);
  EXPECT_EQ(phase_of("TIMEOUT"), JobPhase::failed);
  EXPECT_EQ(phase_of(""), JobPhase::unknown);
}

}  // namespace
}  // namespace kforge::eval
