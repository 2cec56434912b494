/* xml_loader.c — libxml2 through dlopen on first use (see xml_loader.h). */
#include "xml_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "dynlib.h"

#ifndef XML2_SONAME
#define XML2_SONAME "libxml2.so.2"
#endif

/* Loaded once per process: the table and, when loading failed, why. */
static struct {
    pthread_once_t once;
    int ok;
    XmlApi api;
    char why[256];
} xml_lib = {PTHREAD_ONCE_INIT, 0, {0}, ""};

/* Bind one symbol into *slot (dynlib_bind, the reason in xml_lib.why). */
static int xml_bind(void *h, const char *name, void *slot)
{
    return dynlib_bind(h, XML2_SONAME, name, slot, xml_lib.why, sizeof xml_lib.why);
}

/* pthread_once's routine: open the library and bind the table; xml_lib.ok only when every symbol is there. */
static void load(void)
{
    void *h = dynlib_open(XML2_SONAME, "URDF files need libxml2", xml_lib.why, sizeof xml_lib.why);
    if (!h) return;
    XmlApi *a = &xml_lib.api;
    if (xml_bind(h, "xmlReadFile", &a->read_file) < 0 || xml_bind(h, "xmlFreeDoc", &a->free_doc) < 0 ||
        xml_bind(h, "xmlDocGetRootElement", &a->doc_get_root_element) < 0 ||
        xml_bind(h, "xmlGetLineNo", &a->get_line_no) < 0 || xml_bind(h, "xmlHasProp", &a->has_prop) < 0 ||
        xml_bind(h, "xmlGetLastError", &a->get_last_error) < 0) {
        dlclose(h);
        return;
    }
    xml_lib.ok = 1; /* the handle stays open for the process */
}

const XmlApi *xml_api(char *err, size_t errlen)
{
    pthread_once(&xml_lib.once, load);
    if (xml_lib.ok) return &xml_lib.api;
    if (err && errlen) snprintf(err, errlen, "%s", xml_lib.why);
    return NULL;
}
