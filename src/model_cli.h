/* model_cli.h — the `irl model` subcommand: load a machine file (.irm or .urdf), run one model operation on the
 * vectors given on the command line, print one JSON object on stdout. The reference is docs/MODELS.md. */
#ifndef IRL_MODEL_CLI_H
#define IRL_MODEL_CLI_H

/* argv holds what follows "irl model": MACHINE OP [options]. Returns the exit status (0, 1, 64, 65, 66). */
int model_cli_main(int argc, char **argv);

#endif
