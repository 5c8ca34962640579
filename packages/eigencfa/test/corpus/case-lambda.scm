;; case-lambda: optional arguments and arity dispatch with procedures as arguments.
(define make-adder
  (case-lambda
    (() (lambda (x) x))
    ((n) (lambda (x) (+ x n)))
    ((n m) (lambda (x) (+ x n m)))))
(define apply-twice
  (case-lambda
    ((f) (lambda (x) (f (f x))))
    ((f x) (f (f x)))))
(display ((make-adder) 1))
(display ((make-adder 2) 1))
(display (apply-twice (make-adder 1 2) 0))
(display ((apply-twice (make-adder 5)) 0))
