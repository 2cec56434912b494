/* trace_cli.h — `irl trace FILE.h5 --csv [--channels a,b,...] [--from T] [--to T]`: an HDF5 trace as CSV. */
#ifndef IRL_TRACE_CLI_H
#define IRL_TRACE_CLI_H

/* Run the command on its arguments (after "trace"); returns the exit status. */
int trace_cli_main(int argc, char **argv);

#endif
