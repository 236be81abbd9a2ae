# High warnings for our own code; third-party headers come in as SYSTEM includes.
function(ywb_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                           -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual)
    if(YW_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()

if(YW_SANITIZE)
  string(REPLACE "," ";" _sans "${YW_SANITIZE}")
  foreach(_s IN LISTS _sans)
    add_compile_options(-fsanitize=${_s} -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${_s})
  endforeach()
endif()
