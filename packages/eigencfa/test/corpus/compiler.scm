;; A small compiler: arithmetic expressions to stack code, then a virtual machine whose
;; instructions are closures kept in a vector.
(define (compile e)
  (cond ((number? e) (list (list 'push e)))
        (else (append (compile (cadr e)) (compile (caddr e)) (list (list (car e)))))))
(define (op f) (lambda (stack) (cons (f (cadr stack) (car stack)) (cddr stack))))
(define ops (list (cons '+ (op +)) (cons '- (op -)) (cons '* (op *))))
(define (assemble code)
  (list->vector
   (map (lambda (ins)
          (if (eq? (car ins) 'push)
              (let ((v (cadr ins))) (lambda (stack) (cons v stack)))
              (cdr (assq (car ins) ops))))
        code)))
(define (run prog)
  (let loop ((pc 0) (stack '()))
    (if (= pc (vector-length prog)) (car stack) (loop (+ pc 1) ((vector-ref prog pc) stack)))))
(display (run (assemble (compile '(+ (* 2 3) (- 10 4))))))
