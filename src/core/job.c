/* job.c -- one job on one worker thread (build jobs, later a tile
 * cache's layer builds): started, polled without blocking, stopped (asked
 * to cancel, then joined) at any point. Without threads the job runs to
 * its end inside nm_job_start. */
#include "nm_thread.h"

#ifdef NM_HAVE_PTHREADS
/* The worker: runs the job, then says so (release: its results are seen
 * by whoever sees done). */
static void *job_main(void *arg) {
  nm_job *job = (nm_job *)arg;
  job->run(job);
  nm_atomic_set(&job->done, 1);
  return NULL;
}
#endif

void nm_job_start(nm_job *job) {
  job->done = job->cancel = job->started = job->joined = 0;
#ifdef NM_HAVE_PTHREADS
  if (pthread_create(&job->thread, NULL, job_main, job) == 0) {
    job->started = 1;
    return;
  }
#endif
  job->run(job); /* no thread: the job is done when this returns */
  nm_atomic_set(&job->done, 1);
}

/* Joins the worker once (it has returned or is about to). */
static void job_join(nm_job *job) {
#ifdef NM_HAVE_PTHREADS
  if (job->started && !job->joined) pthread_join(job->thread, NULL);
#endif
  job->joined = 1;
}

int nm_job_done(nm_job *job) {
  if (!nm_atomic_get(&job->done)) return 0;
  job_join(job);
  return 1;
}

void nm_job_stop(nm_job *job) {
  nm_atomic_set(&job->cancel, 1);
  job_join(job);
}
