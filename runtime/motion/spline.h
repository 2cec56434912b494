/* spline.h — the geometry of a SPLINE segment (path.h: PlannerSegment's knots and cubic coefficients): natural
 * cubic splines through the points parameterised by chord length (twice continuously differentiable), the table
 * of path length, and the bounds of the derivatives the planner's time law needs. Producer side (planner.c). */
#ifndef IRL_SPLINE_H
#define IRL_SPLINE_H

#include "motion/path.h"

/* Fit g's splines through the nk knots y[k] (ncomp components each); the chord length of the first nchord
 * components gives the parameter. 0, or -1 when two consecutive knots coincide in those components (*at: the
 * second's index), -2 when the linear system could not be solved. */
int spline_fit(PlannerSegment *g, int nk, const double (*y)[PLANNER_SPLINE_DIM], int ncomp, int nchord, int *at);

/* A SPLINE's table of path length (g->arc) and g->length, by Simpson's rule on |dp/ds| in every interval. */
void spline_arc(PlannerSegment *g);

/* The largest |dv/ds|, |d2v/ds2|, |d3v/ds3| of every component (exact: the cubic's extrema on each interval). */
void spline_component_bounds(const PlannerSegment *g, double *D1, double *D2, double *D3);

/* A SPLINE's largest path speed |dp/ds| (m) and rotation speed (rad) per unit of s, sampled finely. */
void spline_cart_bounds(const PlannerSegment *g, double *L, double *th);

#endif
