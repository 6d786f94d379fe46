/* --plugin LIB.so: dlopen, find pb_plugin_register, check what it gives, register. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"
#include "primbench.h"
#include "registry.h"

int pb_plugin_load(struct pb_plugins *set, const char *path, char *err, size_t err_len) {
    if (set->count == PB_MAX_PLUGINS) {
        snprintf(err, err_len, "%s: more than %d plugins", path, PB_MAX_PLUGINS);
        return -1;
    }
    /* A path without a slash would make dlopen search the library path: always a file. */
    char file[4096];
    snprintf(file, sizeof file, "%s%s", strchr(path, '/') ? "" : "./", path);
    dlerror();
    /* RTLD_NOW: an unresolved symbol is reported here, not as a crash mid-sweep.
     * RTLD_LOCAL: two plugins' own symbols never meet. */
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        /* dlerror() usually starts with the file name already. */
        if (why && strncmp(why, file, strlen(file)) == 0)
            snprintf(err, err_len, "%s", why);
        else
            snprintf(err, err_len, "%s: cannot load: %s", path, why ? why : "unknown error");
        return -1;
    }
    /* Two --plugin of one file would give dlopen's same handle: its names clash below. */
    dlerror();
    void *entry = dlsym(handle, PB_PLUGIN_ENTRY);
    if (!entry) {
        snprintf(err, err_len, "%s: no %s function (is it a primbench plugin?)", path,
                 PB_PLUGIN_ENTRY);
        dlclose(handle);
        return -1;
    }
    pb_plugin_register_fn reg;
    /* POSIX guarantees a function's address converts this way; C alone does not. */
    memcpy(&reg, &entry, sizeof reg);
    const struct pb_backend *const *list = NULL;
    int count = 0;
    char why[512];
    if (reg(PB_PLUGIN_ABI, &list, &count) != 0) {
        snprintf(err, err_len, "%s: %s refused the harness (plugin ABI %d)", path, PB_PLUGIN_ENTRY,
                 PB_PLUGIN_ABI);
        dlclose(handle);
        return -1;
    }
    if (pb_registry_add_backends(list, count, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: %s", path, why);
        dlclose(handle);
        return -1;
    }
    set->handles[set->count++] = handle;
    return 0;
}

int pb_plugin_load_args(struct pb_plugins *set, int argc, char **argv, char *err, size_t err_len) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plugin") != 0) continue;
        if (i + 1 >= argc || argv[i + 1][0] == '\0') {
            snprintf(err, err_len, "--plugin needs a library path");
            return -1;
        }
        if (pb_plugin_load(set, argv[++i], err, err_len) != 0) return -1;
    }
    return 0;
}

void pb_plugin_unload_all(struct pb_plugins *set) {
    pb_registry_drop_plugin_backends();
    for (int i = set->count; i-- > 0;) dlclose(set->handles[i]);
    set->count = 0;
}
