;; Exceptions: guard, raise of a procedure, with-exception-handler and raise-continuable, error objects.
(define (safe-div a b)
  (guard (e ((error-object? e) (lambda () 'div-by-zero))
            ((procedure? e) e))
    (if (= b 0) (error "division by zero" a) (lambda () (/ a b)))))
(display ((safe-div 6 3)))
(display ((safe-div 6 0)))
(define r (guard (e ((procedure? e) (e 21))) (raise (lambda (x) (* x 2)))))
(display r)
(define v
  (with-exception-handler
   (lambda (c) (lambda (y) (+ y 1)))
   (lambda () ((raise-continuable 'oops) 41))))
(display v)
(define irritant
  (guard (e (#t (car (error-object-irritants e))))
    (error "boom" (lambda (z) z))))
(display (irritant 5))
