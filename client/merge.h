/* merge.h — `mcalltree merge FILE...`: merges the runs of many JVMs and
 * intervals (summaries, or calls) into one summary object, exactly: counts
 * add up, histograms add bucket by bucket (protocol/summary.h). */
#ifndef MCT_MERGE_H
#define MCT_MERGE_H

/* Runs `mcalltree merge` with argv[0] "merge"; returns the exit status
 * (client/exit.h): 0, 1 for a usage error or a bad input, 5 when stdout
 * cannot be written. Messages go to stderr. */
int merge_main(int argc, char **argv);

#endif
