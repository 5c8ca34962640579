/*
 * PTABen-style alias checks for gpumorph's LLVM front end.
 *
 * These functions are declared but never defined: the analysis recognises
 * calls to them by name and compares the points-to sets of the two arguments.
 *   MAYALIAS, MUSTALIAS, PARTIALALIAS  pass when the analysis reports may-alias
 *   NOALIAS                            passes when it reports no-alias
 *   EXPECTEDFAIL_MAYALIAS              passes on no-alias (a real alias this
 *                                      model is known to miss)
 *   EXPECTEDFAIL_NOALIAS               passes on may-alias (no real alias, but
 *                                      this model cannot tell)
 * See README.md for the model the facts are written against.
 */
#ifndef GPUMORPH_ALIASCHECK_H
#define GPUMORPH_ALIASCHECK_H

void MAYALIAS(void *p, void *q);
void NOALIAS(void *p, void *q);
void MUSTALIAS(void *p, void *q);
void PARTIALALIAS(void *p, void *q);
void EXPECTEDFAIL_MAYALIAS(void *p, void *q);
void EXPECTEDFAIL_NOALIAS(void *p, void *q);

#endif
