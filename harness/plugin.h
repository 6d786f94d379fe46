/* Plugins: backends built outside the tree, loaded with --plugin LIB.so (the ABI is in
 * primbench.h). */
#ifndef PB_PLUGIN_H
#define PB_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#define PB_MAX_PLUGINS 16

/* The libraries loaded, which own the backends the registry lists for them. */
struct pb_plugins {
    void *handles[PB_MAX_PLUGINS];
    int count;
};

/* Loads one plugin and adds its backends to the registry. Returns 0, or -1 with a
 * one-line message naming the file in err (the library is then closed again). */
int pb_plugin_load(struct pb_plugins *set, const char *path, char *err, size_t err_len);

/* Loads the plugin of every `--plugin PATH` in argv[1..argc-1] (the command's own
 * arguments, which it parses again, skipping the pairs). Returns 0, or -1 with err
 * (a missing PATH, or a plugin refused). */
int pb_plugin_load_args(struct pb_plugins *set, int argc, char **argv, char *err, size_t err_len);

/* Takes the plugins' backends out of the registry and closes the libraries. */
void pb_plugin_unload_all(struct pb_plugins *set);

#endif
