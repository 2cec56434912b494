/* xml_loader.h — libxml2, loaded when a URDF file is first read rather than at start-up.
 *
 * Linked in, libxml2 brings ICU and libstdc++ with it: ~1.5 ms of dynamic loading in every run, though only URDF
 * machine files use it. The library is the one whose headers the build compiled against: the Makefile reads its
 * soname from libxml2.so into XML2_SONAME (libxml2.so.2 when it cannot, with a warning). */
#ifndef IRL_XML_LOADER_H
#define IRL_XML_LOADER_H

#include <stddef.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/* The libxml2 functions the URDF reader uses. */
typedef struct {
    xmlDoc *(*read_file)(const char *url, const char *encoding, int options);
    void (*free_doc)(xmlDoc *doc);
    xmlNode *(*doc_get_root_element)(const xmlDoc *doc);
    long (*get_line_no)(const xmlNode *node);
    xmlAttr *(*has_prop)(const xmlNode *node, const xmlChar *name);
    const xmlError *(*get_last_error)(void);
} XmlApi;

/* The table, loading the library on the first call (thread-safe). NULL when it cannot be loaded, with the reason
 * in err. */
const XmlApi *xml_api(char *err, size_t errlen);

#endif
