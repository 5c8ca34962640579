;; Redefining primitives with set!: every later call of car reaches the new procedure.
(define old-car car)
(define calls 0)
(set! car (lambda (p) (set! calls (+ calls 1)) (old-car p)))
(display (car '(1 2)))
(display (map car '((1) (2))))
(set! + (lambda args (if (null? args) 0 (- (old-car args) 0))))
(display (+ 5 6))
(display calls)
