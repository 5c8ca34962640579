;; Early exit with call/cc from inside for-each, and a search that returns through an escape.
(define (find-first pred lst)
  (call/cc (lambda (return)
             (for-each (lambda (x) (when (pred x) (return x))) lst)
             #f)))
(define (product lst)
  (call-with-current-continuation
   (lambda (k) (let loop ((l lst)) (cond ((null? l) 1) ((= (car l) 0) (k 0)) (else (* (car l) (loop (cdr l)))))))))
(display (find-first (lambda (x) (> x 3)) '(1 2 5 7)))
(display (product '(1 2 0 4)))
(define handlers (list (lambda (x) (* x 2))))
(display ((find-first procedure? handlers) 4))
