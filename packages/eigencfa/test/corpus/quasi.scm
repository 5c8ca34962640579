;; Quasiquote building lists and vectors that hold closures.
(define (f x) (* x 2))
(define g (lambda (y) (+ y 1)))
(define l `(1 ,f ,@(list g) #(,g)))
(display ((cadr l) 5))
(display ((caddr l) 5))
(display ((vector-ref (cadddr l) 0) 1))
(define h `,g)
(display (h 0))
